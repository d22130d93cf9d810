total = 0
i = 0
while i < 4000000:
    total = total + (i + 3) * 2 - 1
    i = i + 1
print(total)
