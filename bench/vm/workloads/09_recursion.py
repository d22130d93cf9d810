def countdown(n):
    if n == 0:
        return 0
    return 1 + countdown(n - 1)
total = 0
i = 0
while i < 50000:
    total = total + countdown(60)
    i = i + 1
print(total)
