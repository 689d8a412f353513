// Imported first by main.ts: stdout carries the MCP protocol and nothing else, so anything a
// library prints with console.log/info/debug goes to stderr instead of corrupting the stream.
const toStderr = (...args: unknown[]) => console.error(...args);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;
