# A tainted object: its creation-time provisioner fails.
resource "random_pet" "ok" {}

resource "null_resource" "bad" {
  triggers = {
    pet = random_pet.ok.id
  }
  provisioner "local-exec" {
    command = "exit 1"
  }
}
