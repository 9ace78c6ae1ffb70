const config = require("./config.json");
console.log(`listening on ${config.port}`);
