"""Stage 9, docs: results/ to the doc pages.

Their inputs, number formats, template context and rendering; the guides that ship with the
package."""
