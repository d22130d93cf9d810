def depth(n, step):
    if n == 0:
        return 0
    return step + depth(n - step, step)
total = 0
i = 0
while i < 50000:
    total = total + depth(60, 1)
    i = i + 1
print(total)
