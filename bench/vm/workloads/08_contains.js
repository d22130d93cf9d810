const items = [1, 3, 5, 7, 9, 11, 13, 15];
let hits = 0;
let i = 0;
while (i < 4000000) {
  if (items.includes(i % 16)) {
    hits = hits + 1;
  }
  i = i + 1;
}
console.log(hits);
