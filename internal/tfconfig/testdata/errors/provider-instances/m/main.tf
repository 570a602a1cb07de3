resource "random_pet" "x" {}
