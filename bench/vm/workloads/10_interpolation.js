let text = "";
let resets = 0;
let i = 0;
while (i < 500000) {
  text = `${text}${i % 10}`;
  if ([...text].length >= 64) {
    text = "";
    resets = resets + 1;
  }
  i = i + 1;
}
console.log(resets);
