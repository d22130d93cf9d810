let total = 0;
for (let v = 0; v < 10000000; v++) {
  total = total + v;
}
console.log(total);
