variable "rules" {
  default = [
    { port = 80, cidrs = ["0.0.0.0/0"] },
    { port = 443, cidrs = ["10.0.0.0/8", "192.168.0.0/16"] },
  ]
}
resource "aws_security_group" "web" {
  name = "web"
  dynamic "ingress" {
    for_each = var.rules
    iterator = rule
    content {
      from_port   = rule.value.port
      cidr_blocks = rule.value.cidrs
      description = "rule ${rule.key}"
    }
  }
  egress {
    from_port = 0
  }
}
resource "aws_instance" "x" {
  ami = "ami-1"
  dynamic "ebs_block_device" {
    for_each = toset(["sdb", "sdc"])
    content {
      device_name = "/dev/${ebs_block_device.key}"
      dynamic "tag" {
        for_each = { size = "10" }
        content {
          key   = tag.key
          value = tag.value
        }
      }
    }
  }
  dynamic "root_block_device" {
    for_each = []
    content {
      volume_size = 8
    }
  }
  network_interface {
    device_index = 0
    id           = aws_security_group.web.id
  }
}
