#!/usr/bin/perl
# C calling back into Perl, for tests/perl/test_perl_record.sh: sort with a
# named comparator sub (called by sort's C code), and a signal handler
# (called by Perl's signal despatch through call_sv with G_EVAL, on a
# stackinfo of its own) that interrupts the comparator. Usage: perl
# signals.pl SECONDS
use strict;
use warnings;
use Time::HiRes qw(ualarm time);

sub spin {
	my $x = 0;
	$x += $_ for 1 .. 30000;
	return $x;
}

sub handler { spin() }

sub by_spin { spin(); return $a <=> $b }

sub sorter { my @s = sort by_spin (3, 1, 2); return $s[0] }

$SIG{ALRM} = \&handler;
ualarm(20000, 20000);
my $end = time + ($ARGV[0] || 2);
sorter() while time < $end;
ualarm(0);
