def sum_to(n, acc):
    if n == 0:
        return acc
    return sum_to(n - 1, acc + n)
total = 0
i = 0
while i < 50000:
    total = total + sum_to(60, 0)
    i = i + 1
print(total)
