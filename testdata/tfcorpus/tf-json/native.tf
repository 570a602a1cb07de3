locals {
  native = "native syntax beside JSON"
}
