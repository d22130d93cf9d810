class Point:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


p = Point(3, 4)
total = 0
i = 0
while i < 4500000:
    total = total + p.x * p.y
    i = i + 1
print(total)
