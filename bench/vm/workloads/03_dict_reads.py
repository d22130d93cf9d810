record = {"hot": 3, "cold": 4, "nested": {"value": 5, "other": 6}}
total = 0
i = 0
while i < 4500000:
    total = total + record["hot"] + record["nested"]["value"]
    i = i + 1
print(total)
