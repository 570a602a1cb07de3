# Encoding functions, with the examples of their documentation.

locals {
  csv = <<-CSV
    a,b,c
    1,2,3
    4,5,6
  CSV
}

output "encoding" {
  value = {
    base64encode       = base64encode("Hello World")
    base64decode       = base64decode("SGVsbG8gV29ybGQ=")
    base64gzip         = base64gzip("test")
    base64gunzip       = base64gunzip(base64gzip("round trip"))
    csvdecode          = csvdecode(local.csv)
    jsonencode         = jsonencode({ "hello" = "world", list = [1, true, null], nested = { a = 1.5 } })
    jsonencode_html    = jsonencode("<b>&</b>")
    jsondecode         = jsondecode("{\"hello\": \"world\"}")
    jsondecode_types   = [jsondecode("true"), jsondecode("null") == null, jsondecode("[1, \"a\"]")]
    textencodebase64   = textencodebase64("Hello World", "UTF-16LE")
    textdecodebase64   = textdecodebase64("SABlAGwAbABvACAAVwBvAHIAbABkAA==", "UTF-16LE")
    urlencode          = [urlencode("Hello World!"), urlencode("☃"), urlencode("foo:bar@localhost?foo=bar&bar=baz")]
    urldecode          = [urldecode("Hello+World%21"), urldecode("%E2%98%83")]
    yamlencode         = yamlencode({ "a" : "b", "c" : "d", list = [1, 2], obj = { x = true } })
    yamldecode         = yamldecode("hello: world")
    yamldecode_list    = yamldecode("- true\n- 1\n- \"x\"")
    yamlencode_strings = yamlencode(["multi\nline", "yes", "1"])
  }
}
