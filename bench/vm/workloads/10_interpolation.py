text = ""
resets = 0
i = 0
while i < 500000:
    text = f"{text}{i % 10}"
    if len(text) >= 64:
        text = ""
        resets = resets + 1
    i = i + 1
print(resets)
