resource "terraform_data" "was_counted" {
  count = 1
  input = "kept"
}
resource "terraform_data" "going" {
  input = "gone next"
}
