# Replacement-field positions in multi-line and concatenated f-strings
# (3.11's fstring_find_expr_location), measured against python3.11.
a1 = f'''
{
 aa
}'''
a2 = f'''abc
  {aa}'''
a3 = f'''abc
  {
aa}'''
a4 = f'''abc
  {  
  aa + bb}'''
a5 = f'''{aa +
 bb}''' f'{cc}'
a6 = (f'{aa}'
   f'{bb}' f'''
{cc}''')
a7 = 'ä' f'''ä{aa}'''
a8 = f'a{aa!r:>{bb}} {cc=}'
a9 = f'''{
  aa}{
bb}'''
b1 = f'''{"""a
b""" + aa}'''
b2 = f'''x
 {"""a
b""" + aa}'''
b3 = f'''x
 {aa + """a
b"""}'''
b4 = f'''{aa:{bb}
}'''
b5 = f'''

  x {aa:
{bb}}'''
b6 = f'''
	{	aa}'''
b7 = f'''{
 a, b}''' f'''
  {
 c, d}''' f'{e for e in f}'
if 1:
    b8 = f'''
    {aa}'''
