total = 0
for v in range(0, 10000000):
    total = total + v
print(total)
