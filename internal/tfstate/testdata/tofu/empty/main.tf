# Everything created, then destroyed: an empty state with its history.
resource "random_pet" "gone" {}

output "was" {
  value = random_pet.gone.id
}
