environment = "qa"
replicas    = 0
name        = null
