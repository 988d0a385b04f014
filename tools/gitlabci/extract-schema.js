// Prints, as JSON, GitLab's CI schema from gitlab-ci-local's bundled
// dist/index.js, where it is an object literal whose $id is GitLab's.
const fs = require('fs');
const src = fs.readFileSync(process.argv[2], 'utf8');
const id = '$id:"https://gitlab.com/.gitlab-ci.yml"';
const at = src.indexOf(id);
if (at < 0 || src.indexOf(id, at + 1) >= 0) {
  console.error('the schema literal is not found exactly once');
  process.exit(1);
}
// The literal starts at the last "{$schema:" before its $id.
const start = src.lastIndexOf('{$schema:', at);
let depth = 0, end = start, quote = null;
for (; end < src.length; end++) {
  const c = src[end];
  if (quote) {
    if (c === '\\') { end++; continue; }
    if (c === quote) quote = null;
    continue;
  }
  if (c === '"' || c === "'" || c === '`') { quote = c; continue; }
  if (c === '{' || c === '[') depth++;
  else if (c === '}' || c === ']') {
    depth--;
    if (depth === 0) { end++; break; }
  }
}
const schema = (0, eval)('(' + src.slice(start, end) + ')');
process.stdout.write(JSON.stringify(schema, null, 2) + '\n');
