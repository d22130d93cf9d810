items = [1, 3, 5, 7, 9, 11, 13, 15]
hits = 0
i = 0
while i < 4000000:
    if (i % 16) in items:
        hits = hits + 1
    i = i + 1
print(hits)
