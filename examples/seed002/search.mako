## The seed's page: a small search form, rendered per request, no database.
<!DOCTYPE html>
<html>
<head><title>${title}</title></head>
<body>
<h1>${title}</h1>
<form action="/" method="get">
  <input type="text" name="q" value="${query | h}" size="40">
  <input type="submit" value="Search">
</form>
% if query:
<p>No results for <em>${query | h}</em> (there is no database).</p>
% endif
</body>
</html>
