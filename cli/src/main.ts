// Placeholder entry until the CLI lands; replaced by the commander program.
console.log("harn 0.1.0");
