def step(v):
    return v + 1
v = 0
i = 0
while i < 4000000:
    v = step(v)
    i = i + 1
print(v)
