module "child" {
  source  = "./child"
  unknown = 1
}
module "given" {
  source = "./child"
  needed = 5
  typed  = "not a number"
}
