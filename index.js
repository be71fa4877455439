// n8n loads this package's nodes and credentials from the paths in package.json's
// "n8n" field (under dist/); nothing is exported from the package root.
module.exports = {};
