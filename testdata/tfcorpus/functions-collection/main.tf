# Collection functions, with the examples of their documentation.

output "collections" {
  value = {
    alltrue        = [alltrue(["true", true]), alltrue([true, false]), alltrue([])]
    anytrue        = [anytrue(["true"]), anytrue([true, false]), anytrue([])]
    chunklist      = [chunklist(["a", "b", "c", "d", "e"], 2), chunklist(["a", "b", "c", "d", "e"], 1)]
    coalesce       = [coalesce("a", "b"), coalesce("", "b"), coalesce(1, 2), coalesce(["", "b"]...)]
    coalescelist   = [coalescelist(["a", "b"], ["c", "d"]), coalescelist([], ["c", "d"])]
    compact        = compact(["a", "", "b", null, "c"])
    concat         = concat(["a", ""], ["b", "c"])
    contains       = [contains(["a", "b", "c"], "a"), contains(["a", "b", "c"], "d")]
    distinct       = distinct(["a", "b", "a", "c", "d", "b"])
    element        = [element(["a", "b", "c"], 1), element(["a", "b", "c"], 3), element(["a", "b", "c"], length(["a", "b", "c"]) - 1)]
    flatten        = [flatten([["a", "b"], [], ["c"]]), flatten([[["a", "b"], []], ["c"]])]
    index          = index(["a", "b", "c"], "b")
    keys           = keys({ a = 1, c = 2, d = 3 })
    length         = [length([]), length(["a", "b"]), length({ "a" = "b" })]
    lookup         = [lookup({ a = "ay", b = "bee" }, "a", "what?"), lookup({ a = "ay", b = "bee" }, "c", "what?")]
    matchkeys      = [matchkeys(["i-123", "i-abc", "i-def"], ["us-west", "us-east", "us-east"], ["us-east"]), matchkeys(["a", "b", "c"], ["x", "y", "z"], ["y", "w"])]
    merge          = [merge({ a = "b", c = "d" }, { e = "f", c = "z" }), merge({ a = "b" }, { a = [1, 2], c = "z" }, { d = 3 })]
    one            = [one([]), one(["hello"]), one(toset(["x"]))]
    range          = [range(3), range(1, 4), range(1, 8, 2), range(1, 4, 0.5), range(4, 1), range(10, 5, -2)]
    reverse        = reverse([1, 2, 3])
    setintersect   = setintersection(["a", "b"], ["b", "c"], ["b", "d"])
    setproduct     = [setproduct(["development", "staging", "production"], ["app1", "app2"]), setproduct(["a"], []), setproduct(["a", "b"], [1, 2])]
    setsubtract    = [setsubtract(["a", "b", "c"], ["a", "c"]), setsubtract(["a", "b", "c"], ["a", "b", "c"])]
    setunion       = setunion(["a", "b"], ["b", "c"], ["d"])
    slice          = slice(["a", "b", "c", "d"], 1, 3)
    sort           = sort(["e", "d", "a", "x", "10", "9"])
    sum            = [sum([10, 13, 6, 4.5]), sum([-1, 1])]
    transpose      = transpose({ "a" = ["1", "2"], "b" = ["2", "3"] })
    values         = values({ a = 3, c = 2, d = 1 })
    zipmap         = zipmap(["a", "b"], [1, 2])
    tolist_from_set = tolist(toset(["c", "b", "a", "b"]))
  }
}
