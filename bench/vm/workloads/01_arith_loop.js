let total = 0;
let i = 0;
while (i < 4000000) {
  total = total + (i + 3) * 2 - 1;
  i = i + 1;
}
console.log(total);
