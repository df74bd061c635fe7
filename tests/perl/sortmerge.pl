#!/usr/bin/perl
# sort with a cheap comparator block, for tests/perl/test_perl_record.sh:
# much of the time goes to sort's own C code (the merge) between
# comparator calls, while sort's stackinfo is the interpreter's current
# one but no runops frame runs it. Usage: perl sortmerge.pl SECONDS
use strict;
use warnings;

my %h = map { $_ => ($_ * 7919) % 10007 } 1 .. 20000;

sub sorter {
	my @k = sort { $h{$a} <=> $h{$b} } keys %h;
	return scalar @k;
}

my $end = time + ($ARGV[0] || 2);
sorter() while time < $end;
