/** A resource locator set "By ID", as the editor stores it: mode `id`, the value always a string. */
export function byId(id: string | number): { __rl: true; mode: 'id'; value: string } {
	return { __rl: true, mode: 'id', value: String(id) };
}
