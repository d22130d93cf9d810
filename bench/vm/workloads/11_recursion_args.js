function depth(n, step) {
  if (n === 0) return 0;
  return step + depth(n - step, step);
}
let total = 0;
let i = 0;
while (i < 50000) {
  total = total + depth(60, 1);
  i = i + 1;
}
console.log(total);
