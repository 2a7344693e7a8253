print("tvctl: not built yet")
