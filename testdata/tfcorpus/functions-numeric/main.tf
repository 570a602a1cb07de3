# Numeric functions, with the examples of their documentation.

output "numeric" {
  value = {
    abs      = [abs(23), abs(0), abs(-12.4)]
    ceil     = [ceil(5), ceil(5.1)]
    floor    = [floor(5), floor(4.9)]
    log      = [log(50, 10), log(16, 2), log(1, 10)]
    max      = [max(12, 54, 3), max([12, 54, 3]...)]
    min      = [min(12, 54, 3), min([12, 54, 3]...)]
    parseint = [parseint("100", 10), parseint("FF", 16), parseint("-10", 16), parseint("1011111011101111", 2), parseint("aA", 62)]
    pow      = [pow(3, 2), pow(4, 0)]
    signum   = [signum(-13), signum(0), signum(344)]
  }
}

output "arithmetic" {
  value = {
    add      = 1 + 2.5
    sub      = 10 - 20
    mul      = 3 * 1.5
    div      = 10 / 4
    mod      = 10 % 3
    neg      = -(5)
    big      = 9007199254740993 + 0
    fraction = 1 / 3
    compare  = [1 < 2, 2 <= 2, 3 > 4, 4 >= 5, 1 == 1.0, "1" != 1]
    logic    = [true && false, true || false, !true]
  }
}
