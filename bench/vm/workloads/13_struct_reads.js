class Point {
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }
}
const p = new Point(3, 4);
let total = 0;
let i = 0;
while (i < 4500000) {
  total = total + p.x * p.y;
  i = i + 1;
}
console.log(total);
