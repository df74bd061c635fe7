#!/usr/bin/perl
# The chain tests/perl/test_perl_record.sh profiles: the main program ->
# top -> Worker::run (a method) -> sort with a comparator block (the C
# sort calls back into Perl) -> descend, DEPTH deep -> leaf, a busy loop.
# Marks: "@calls F->G" on the line where F calls G, "@leaf F" on lines F
# may be sampled at innermost. Usage: perl chain.pl SECONDS
use strict;
use warnings;

our $DEPTH = 24;

package Worker;

sub new { return bless { n => 0 }, shift }

sub run {
	my ($self) = @_;
	my @s = sort { main::descend($main::DEPTH, $a) <=> $b } (2, 1); # @calls Worker::run->main::descend
	$self->{n} += $s[0]; # @leaf Worker::run
}

package main;

sub leaf {
	my $x = 0;
	for my $i (1 .. 20000) { # @leaf main::leaf
		$x += $i * 3 % 7; # @leaf main::leaf
	}
	return $x; # @leaf main::leaf
}

sub descend {
	my ($n, $v) = @_;
	return leaf() + $v if $n <= 0; # @calls main::descend->main::leaf
	return descend($n - 1, $v); # @calls main::descend->main::descend
}

sub top {
	my ($until) = @_;
	my $w = Worker->new;
	while (time() < $until) {
		$w->run; # @calls main::top->Worker::run
	}
}

top(time() + ($ARGV[0] || 2)); # @calls <main>->main::top
