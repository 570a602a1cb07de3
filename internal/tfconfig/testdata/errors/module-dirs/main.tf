# Module sources that name no module: said where the source is.
module "nosource" {
  source = "./nothere"
}

module "notconfig" {
  source = "./notconfig"
}
