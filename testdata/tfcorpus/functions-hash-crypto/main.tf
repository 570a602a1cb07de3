# Hash and crypto functions, with the examples of their documentation.
# bcrypt is impure: unknown at plan. The key and ciphertext are test data
# made for this corpus (openssl genrsa; pkeyutl -encrypt, PKCS #1 v1.5).

output "hashes" {
  value = {
    base64sha256 = base64sha256("hello world")
    base64sha512 = base64sha512("hello world")
    md5          = md5("hello world")
    sha1         = sha1("hello world")
    sha256       = sha256("hello world")
    sha512       = sha512("hello world")
    uuidv5_dns   = uuidv5("dns", "www.example.com")
    uuidv5_url   = uuidv5("url", "https://www.example.com/")
    uuidv5_oid   = uuidv5("oid", "1.2.3")
    uuidv5_x500  = uuidv5("x500", "cn=ann")
    uuidv5_ns    = uuidv5("743ac3c0-3bf7-4a5b-9e6c-59360447c757", "LIBS:diskfont.library")
    unicode      = md5("☃")
  }
}

output "rsadecrypt" {
  value = rsadecrypt(trimspace(file("${path.module}/ciphertext.b64")), file("${path.module}/key.pem"))
}

output "bcrypt_length" {
  value = length(bcrypt("hello world"))
}

resource "terraform_data" "hashed" {
  input = {
    password_hash = bcrypt("hunter2", 6)
    digest        = sha256("hunter2")
  }
}
