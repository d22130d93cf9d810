let total = 0;
let i = 0;
while (i < 2000000) {
  const a = i;
  const b = a + 1;
  const c = b + 2;
  const d = c + 3;
  const e = d + 4;
  const f = e + 5;
  const g = f + 6;
  const h = g + 7;
  total = total + a + b + c + d + e + f + g + h;
  i = i + 1;
}
console.log(total);
