/**
 * Ends a jest run with the line `npm test` promises, "jest: N passed, N failed",
 * where failed also counts the suites that could not run at all (a syntax
 * error, a failing beforeAll). A test results processor, so it comes after
 * jest's own summary; it hands the results on unchanged.
 */
module.exports = (results) => {
	const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
	process.stdout.write(`jest: ${results.numPassedTests} passed, ${failed} failed\n`);
	return results;
};
