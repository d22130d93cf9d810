const items = Array.from({ length: 1000 }, (_, i) => i);
let total = 0;
let round = 0;
while (round < 8000) {
  const limit = round % 500;
  const picked = items.filter((x) => x > limit).map((x) => x * 2);
  total = total + picked.length;
  round = round + 1;
}
console.log(total);
