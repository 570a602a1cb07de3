output "inherited" {
  value = provider::fwtest::sum([1])
}
