function sumTo(n, acc) {
  if (n === 0) return acc;
  return sumTo(n - 1, acc + n);
}
let total = 0;
let i = 0;
while (i < 50000) {
  total = total + sumTo(60, 0);
  i = i + 1;
}
console.log(total);
