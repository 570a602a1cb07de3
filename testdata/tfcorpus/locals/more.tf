locals {
  services = ["api", "web", "worker"]
  settings = {
    for i, s in local.services : s => {
      index  = i
      port   = 8000 + i
      public = s != "worker"
    }
  }
}
