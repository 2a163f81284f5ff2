/**
 * The code shown in README.md and docs/guide: each snippet is a region between {@code //
 * tag::name[]} and {@code // end::name[]} in these files, and {@code GuideSnippetsTest} fails when a
 * Markdown code block differs from its region. Edit the code here, then copy it into the page.
 */
package io.sluice.examples.guide;
