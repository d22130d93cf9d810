total = 0
i = 0
while i < 2000000:
    a = i
    b = a + 1
    c = b + 2
    d = c + 3
    e = d + 4
    f = e + 5
    g = f + 6
    h = g + 7
    total = total + a + b + c + d + e + f + g + h
    i = i + 1
print(total)
