const record = new Map([["hot", 3], ["cold", 4], ["nested", new Map([["value", 5], ["other", 6]])]]);
let total = 0;
let i = 0;
while (i < 4500000) {
  total = total + record.get("hot") + record.get("nested").get("value");
  i = i + 1;
}
console.log(total);
