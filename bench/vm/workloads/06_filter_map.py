items = list(range(0, 1000))
total = 0
rnd = 0
while rnd < 8000:
    limit = rnd % 500
    picked = list(map(lambda x: x * 2, filter(lambda x: x > limit, items)))
    total = total + len(picked)
    rnd = rnd + 1
print(total)
