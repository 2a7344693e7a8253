print("tunnelvisiond: not built yet")
