hits = 0
i = 0
while i < 4000000:
    if i % 7 >= 3 and i % 5 <= 2:
        hits = hits + 1
    if i % 11 == 0:
        hits = hits - 1
    i = i + 1
print(hits)
