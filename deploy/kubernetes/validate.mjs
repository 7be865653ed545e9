// Validates every document of the given multi-document YAML files against the Kubernetes API schemas of the
// kubernetes-models package (JSON Schema per apiVersion and kind, unknown fields refused). Run by validate.sh.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(process.env.KVAL_DIR + "/");
const yaml = require("js-yaml");

let failures = 0;
let checked = 0;
for (const file of process.argv.slice(2)) {
  for (const doc of yaml.loadAll(readFileSync(file, "utf8"))) {
    if (!doc) continue;
    const [group, version] = doc.apiVersion.includes("/") ? doc.apiVersion.split("/") : ["", doc.apiVersion];
    const where = `${file}: ${doc.kind} ${doc.metadata?.name}`;
    let Model;
    try {
      Model = require(`kubernetes-models/${group ? group + "/" : ""}${version}/${doc.kind}`)[doc.kind];
    } catch (e) {
      console.log(`FAIL ${where}: no schema for ${doc.apiVersion} ${doc.kind}`);
      failures++;
      continue;
    }
    try {
      new Model(doc).validate();
      checked++;
      console.log(`ok   ${where}`);
    } catch (e) {
      failures++;
      console.log(`FAIL ${where}: ${e.message}`);
    }
  }
}
console.log(`${checked} valid, ${failures} invalid`);
process.exit(failures === 0 && checked > 0 ? 0 : 1);
