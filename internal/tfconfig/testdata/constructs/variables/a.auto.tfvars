from_auto = ["a1", "a2"]
from_file = 8
zone = "z"
