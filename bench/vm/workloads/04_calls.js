function step(v) { return v + 1; }
let v = 0;
let i = 0;
while (i < 4000000) {
  v = step(v);
  i = i + 1;
}
console.log(v);
