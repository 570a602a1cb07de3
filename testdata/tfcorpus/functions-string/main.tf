# String functions, with the examples of their documentation.

output "strings" {
  value = {
    chomp       = [chomp("hello\n"), chomp("hello\r\n"), chomp("hello\n\n")]
    endswith    = [endswith("hello world", "world"), endswith("hello world", "hello")]
    format      = [format("Hello, %s!", "Ander"), format("There are %d lights", 4), format("%-8s|%5.2f|%x|%q|%t", "ab", 3.14159, 255, "q", true), format("%v %#v", [1, "a"], { a = 1 })]
    formatlist  = formatlist("Hello, %s!", ["Valentina", "Ander", "Olivia", "Sam"])
    formatlist2 = formatlist("%s, %s!", "Salutations", ["Valentina", "Ander"])
    indent      = "  items: ${indent(2, "[\n  foo,\n  bar,\n]\n")}"
    join        = [join("-", ["foo", "bar", "baz"]), join(", ", ["foo"]), join(",", [])]
    lower       = lower("HELLO")
    regex       = [regex("[a-z]+", "53453453.345345aaabbbccc23454"), regex("^(?:(?P<scheme>[^:/?#]+):)?(?://(?P<authority>[^/?#]*))?", "https://example.com/x")["authority"]]
    regex_list  = regex("(\\d\\d\\d\\d)-(\\d\\d)-(\\d\\d)", "2019-02-01")
    regexall    = [regexall("[a-z]+", "1234abcd5678efgh9"), length(regexall("[a-z]+", "1234abcd5678efgh9"))]
    replace     = [replace("1 + 2 + 3", "+", "-"), replace("hello world", "/w.*d/", "everybody"), replace("hello", "/(h)(e)/", "$2$1")]
    split       = [split(",", "foo"), split(",", "foo,bar,baz"), split(",", "")]
    startswith  = [startswith("hello world", "hello"), startswith("hello world", "world")]
    strcontains = [strcontains("hello world", "wor"), strcontains("hello world", "wod")]
    strrev      = [strrev("hello"), strrev("a ☃")]
    substr      = [substr("hello world", 1, 4), substr("🤔🤷", 0, 1), substr("hello world", -5, -1), substr("hello world", 7, 100)]
    title       = title("hello world")
    trim        = [trim("?!hello?!", "!?"), trim("foobar", "far"), trim("   hello! world.!  ", "! ")]
    trimprefix  = [trimprefix("helloworld", "hello"), trimprefix("helloworld", "cat")]
    trimsuffix  = trimsuffix("helloworld", "world")
    trimspace   = trimspace("  hello\n\n")
    upper       = upper("hello")
    length      = [length("hello"), length("🤔🤷"), length("ab\u0301")]
  }
}
