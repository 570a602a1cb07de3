resource "null_resource" "a" {
  triggers = {
    v = var.missing
    l = local.missing
    r = null_resource.missing.id
    m = module.missing.out
    s = self.id
  }
  depends_on = [null_resource.a.id, null_resource.nope]
}
resource "null_resource" "functions" {
  triggers = {
    f = nosuchfunction(1)
  }
  other = upper(1, 2)
  third = [1, 2][5]
  fourth = cidrsubnet("10.0.0.0/16", 20, 1)
  fifth = jsondecode("{not json")
}
