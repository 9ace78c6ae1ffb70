// generated
console.log("app");
