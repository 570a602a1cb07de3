terraform {
  cloud {}
}
output "nothing" {}
ephemeral "random_password" "p" {}
