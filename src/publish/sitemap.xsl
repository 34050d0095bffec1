<?xml version="1.0" encoding="UTF-8"?>
<!-- sitemapgen's default stylesheet (written by its write-xsl option, which rewrites it):
     a sitemap, its index or a shard as a table in a browser. No external assets. -->
<xsl:stylesheet version="1.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9"
    xmlns:xhtml="http://www.w3.org/1999/xhtml"
    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
    exclude-result-prefixes="s xhtml image">
  <xsl:output method="html" encoding="UTF-8" indent="yes"/>
  <xsl:template match="/">
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <meta name="robots" content="noindex"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>Sitemap</title>
        <style>
          body { font: 15px/1.5 system-ui, sans-serif; margin: 2em; color: #222; }
          table { border-collapse: collapse; width: 100%; }
          th, td { text-align: left; padding: .3em .7em; border-bottom: 1px solid #ddd; }
          th { background: #f3f3f3; }
          td.n { text-align: right; white-space: nowrap; }
          a { color: #0645ad; word-break: break-all; }
        </style>
      </head>
      <body>
        <xsl:apply-templates select="s:urlset | s:sitemapindex"/>
      </body>
    </html>
  </xsl:template>
  <xsl:template match="s:urlset">
    <h1>Sitemap</h1>
    <p><xsl:value-of select="count(s:url)"/> URLs</p>
    <table>
      <thead><tr><th>URL</th><th>Last modified</th><th>Images</th><th>Alternates</th></tr></thead>
      <tbody>
        <xsl:for-each select="s:url">
          <tr>
            <td><a href="{s:loc}"><xsl:value-of select="s:loc"/></a></td>
            <td class="n"><xsl:value-of select="s:lastmod"/></td>
            <td class="n"><xsl:value-of select="count(image:image)"/></td>
            <td class="n"><xsl:value-of select="count(xhtml:link)"/></td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>
  <xsl:template match="s:sitemapindex">
    <h1>Sitemap index</h1>
    <p><xsl:value-of select="count(s:sitemap)"/> sitemaps</p>
    <table>
      <thead><tr><th>Sitemap</th><th>Last modified</th></tr></thead>
      <tbody>
        <xsl:for-each select="s:sitemap">
          <tr>
            <td><a href="{s:loc}"><xsl:value-of select="s:loc"/></a></td>
            <td class="n"><xsl:value-of select="s:lastmod"/></td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>
</xsl:stylesheet>
